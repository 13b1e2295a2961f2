/* Two functions and no scop region: choose one with --function. */
#define N 6

void first(double A[N])
{
  int i;
  for (i = 0; i < N; i++)
    A[i] = 1.0;
}

void second(double A[N], double B[N][N])
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < i; j++)
      B[i][j] = A[i] + A[j];
}
