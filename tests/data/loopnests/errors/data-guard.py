# expect: 7:12 data-dependent guard
N = 8


def f(A, B):
    for i in range(N):
        if A[i] > 0:
            B[i] = 1.0
