# expect: 7:11 indirect subscript
N = 8


def f(A, B):
    for i in range(N):
        A[B[i]] = 0.0
