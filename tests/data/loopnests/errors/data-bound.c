/* expect: 7:19 data-dependent bound */
#define N 8
void f(double A[N], int n[1])
{
  int i;
#pragma scop
  for (i = 0; i < n[0]; i++)
    A[i] = 0.0;
#pragma endscop
}
