# cholesky: in-place Cholesky factorisation A = L L^T, lower triangle (Python twin of cholesky.c).
# ruff: noqa: F821 (sqrt is a pure function the importer knows by name)

N = 6


def kernel_cholesky(N, A):
    for i in range(N):
        for j in range(i):
            for k in range(j):
                A[i][j] -= A[i][k] * A[j][k]
            A[i][j] /= A[j][j]
        for k in range(i):
            A[i][i] -= A[i][k] * A[i][k]
        A[i][i] = sqrt(A[i][i])
