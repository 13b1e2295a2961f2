/* expect: 9:5 member access */
#define N 8
struct s { double x; };
void f(struct s *p)
{
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    p->x = 0.0;
#pragma endscop
}
