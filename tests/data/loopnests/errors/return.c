/* expect: 9:3 return inside the region */
#define N 8
void f(double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = 0.0;
  return;
#pragma endscop
}
