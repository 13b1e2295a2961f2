# expect: 7:9 subscript of grid.A
N = 8


def f(grid):
    for i in range(N):
        grid.A[i] = 0.0
