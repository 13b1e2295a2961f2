/* expect: 9:5 goto */
#define N 8
void f(double A[N])
{
  int i;
#pragma scop
  for (i = 0; i < N; i++) {
    A[i] = 0.0;
    goto done;
  }
done:
  A[0] = 1.0;
#pragma endscop
}
