/* expect: 8:19 data-dependent bound */
#define N 8
void f(double A[N])
{
  int i, m;
#pragma scop
  m = A[0];
  for (i = 0; i < m; i++)
    A[i] = 0.0;
#pragma endscop
}
