/* tiled-gemm: C += A*B with the i and j loops tiled by 4 (literal tile size), partial tiles
   bounded by min() (a pure function the importer knows), and the k loop split at K0 by a guard. */
#define NI 6
#define NJ 7
#define NK 5
#define K0 2

void kernel_tiled_gemm(DATA_TYPE alpha, double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
{
  int ii, jj, i, j, k;

#pragma scop
  for (ii = 0; ii < NI; ii += 4)
    for (jj = 0; jj < NJ; jj += 4)
      for (i = ii; i < min(ii + 4, NI); i++)
        for (j = jj; j < min(jj + 4, NJ); j++)
          for (k = 0; k < NK; k++) {
            if (k < K0)
              C[i][j] += A[i][k] * B[k][j];
            else
              C[i][j] += alpha * A[i][k] * B[k][j];
          }
#pragma endscop
}
