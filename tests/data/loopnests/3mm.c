/* 3mm: G := (A*B)*(C*D) through E = A*B and F = C*D. */
#define NI 4
#define NJ 5
#define NK 3
#define NL 6
#define NM 2

void kernel_3mm(double E[NI][NJ], double A[NI][NK], double B[NK][NJ],
                double F[NJ][NL], double C[NJ][NM], double D[NM][NL],
                double G[NI][NL])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      E[i][j] = 0.0;
      for (k = 0; k < NK; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NL; j++) {
      F[i][j] = 0.0;
      for (k = 0; k < NM; ++k)
        F[i][j] += C[i][k] * D[k][j];
    }
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++) {
      G[i][j] = 0.0;
      for (k = 0; k < NJ; ++k)
        G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
}
