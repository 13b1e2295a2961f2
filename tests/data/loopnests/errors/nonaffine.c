/* expect: 9:9 non-affine subscript */
#define N 8
void f(double A[N * N])
{
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i * j] = 0.0;
#pragma endscop
}
