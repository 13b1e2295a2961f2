/* expect: 7:22 non-constant step */
#define N 8
void f(double A[N], int s)
{
  int i;
#pragma scop
  for (i = 0; i < N; i += s)
    A[i] = 0.0;
#pragma endscop
}
