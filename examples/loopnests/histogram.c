/* Not affine: a histogram updates H at an index it reads from memory. */
#define N 100

void histogram(int idx[N], double H[16])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    H[idx[i]] += 1.0;
#pragma endscop
}
