/* Hand-checked counts (tests/formats/test_loopnest_import.py): a triangular loop, a strided
   loop, a loop running down by 2, an affine ternary and a labelled statement. */
#define N 5

void triangle(double s[N], double L[N][N], double x[N], double y[], double z[N],
              double w[N], double v[N], double a[N], double b[N + 1])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++) {
    s[i] = 0.0;
    for (j = 0; j <= i; j++)
      s[i] += L[i][j] * x[j];
    y[2 * i + 1] = s[i];
  }
  for (k = 1; k < N; k += 2)
    z[k] = x[k - 1];
  for (k = N - 1; k >= 0; k -= 2)
    w[k] = x[k];
  for (i = 0; i < N; i++)
  scale:
    v[i] = (i < 2) ? a[i] : b[i + 1];
#pragma endscop
}
