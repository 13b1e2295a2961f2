"""Two functions: choose one with --function."""

N = 6


def first(A):
    for i in range(N):
        A[i] = 1.0


def second(A, B, M=4):
    for i in range(M):
        for j in range(i):
            B[i][j] = A[i] + A[j]
