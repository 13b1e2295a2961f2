/* atax: y := A^T * (A * x), A is M x N. */
#define M 5
#define N 7

void kernel_atax(int m, int n,
                 DATA_TYPE POLYBENCH_2D(A, M, N, m, n),
                 DATA_TYPE POLYBENCH_1D(x, N, n),
                 DATA_TYPE POLYBENCH_1D(y, N, n),
                 DATA_TYPE POLYBENCH_1D(tmp, M, m))
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++)
    y[i] = 0;
  for (i = 0; i < _PB_M; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    for (j = 0; j < _PB_N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < _PB_N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
#pragma endscop
}
