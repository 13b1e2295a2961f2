# expect: 6:20 data-dependent bound
N = 8


def f(A, n):
    for i in range(n[0]):
        A[i] = 0.0
