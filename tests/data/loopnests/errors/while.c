/* expect: 8:3 while loop */
#define N 8
void f(double A[N])
{
  int i;
#pragma scop
  i = 0;
  while (i < N) {
    A[i] = 0.0;
    i++;
  }
#pragma endscop
}
