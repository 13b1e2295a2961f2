/* One einsum-like statement: C[i][j] += A[i][k] * B[k][j]. */
#define M 8
#define N 8
#define K 8

void matmul(double C[M][N], double A[M][K], double B[K][N])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
