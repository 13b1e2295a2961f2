/* Hand-checked (tests/formats/test_loopnest_import.py): a step written i = i + 2, min/max
   bounds, a guard with %, else, floor division in a subscript, a chained assignment, a block
   with a declaration and x++, a loop running down with if / else if. */
#define N 6

void features(double A[N][N], double B[N], double x, double y)
{
  int i, j;
#pragma scop
  for (int i = 0; i < N; i = i + 2) {
    for (j = max(0, i - 1); j < min(N, i + 2); j++) {
      if (j % 2 == 0)
        A[i][j] = 1.0;
      else
        A[i][j / 2] += B[j];
    }
    x = y = B[i];
  }
  {
    double t = x;
    t++;
  }
  for (i = N - 1; i > 0; i -= 2)
    if (2 <= i && i < 4)
      B[i] = 0.0;
    else if (i == 1)
      B[i] = 1.0;
#pragma endscop
}
