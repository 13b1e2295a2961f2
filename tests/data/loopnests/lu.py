# lu: in-place LU decomposition without pivoting (Doolittle, unit lower L)
# (Python twin of lu.c).

N = 6


def kernel_lu(N, A):
    for i in range(N):
        for j in range(i):
            for k in range(j):
                A[i][j] -= A[i][k] * A[k][j]
            A[i][j] /= A[j][j]
        for j in range(i, N):
            for k in range(i):
                A[i][j] -= A[i][k] * A[k][j]
