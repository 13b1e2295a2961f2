/* trisolv: forward substitution L x = b, L lower triangular. */
#define N 7

void kernel_trisolv(int n,
                    DATA_TYPE POLYBENCH_2D(L, N, N, n, n),
                    DATA_TYPE POLYBENCH_1D(x, N, n),
                    DATA_TYPE POLYBENCH_1D(b, N, n))
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}
