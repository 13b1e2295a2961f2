/* expect: 8:12 call to update, not a known pure function */
#define N 8
void f(double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    A[i] = update(A[i]);
#pragma endscop
}
