/* downsample: every second row i, a window of columns max(0, i-1) <= j < min(M, i+2); a chained
   assignment copies A[i][j] below the diagonal and B[j] elsewhere (a ternary on loop
   variables, so only the taken branch is read) into the scalar t and s[j], then out[i][j] is
   scaled from t. */
#define N 9
#define M 6

void kernel_downsample(double A[N][M], double B[M], double s[M], double out[N][M])
{
  int i, j;
  double t;

#pragma scop
  for (i = 0; i < N; i += 2)
    for (j = max(0, i - 1); j < min(M, i + 2); j++) {
      t = s[j] = j < i ? A[i][j] : B[j];
      out[i][j] = 0.5 * t;
    }
#pragma endscop
}
