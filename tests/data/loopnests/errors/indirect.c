/* expect: 8:7 indirect subscript */
#define N 8
void f(double A[N], int B[N])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    A[B[i]] = 0.0;
#pragma endscop
}
