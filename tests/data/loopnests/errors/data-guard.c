/* expect: 8:9 data-dependent guard */
#define N 8
void f(double A[N], double B[N])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    if (A[i] > 0)
      B[i] = 1.0;
#pragma endscop
}
