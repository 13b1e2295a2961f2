# expect: 6:26 non-constant step
N = 8


def f(A, s):
    for i in range(0, N, s):
        A[i] = 0.0
