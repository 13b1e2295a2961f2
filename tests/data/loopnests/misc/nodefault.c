/* No #define: N (from _PB_N) and m (used in a bound, declared nowhere in the region) are
   parameters without defaults. */
void nodefault(int n, int m, double A[], double B[])
{
  int i, j;
#pragma scop
  for (i = 0; i < _PB_N; i++)
    for (j = i; j < m; j++)
      A[i] += B[j];
#pragma endscop
}
