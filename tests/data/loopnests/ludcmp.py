# ludcmp: LU decomposition through the scalar w, then forward (L y = b) and backward
# (U x = y) substitution (Python twin of ludcmp.c).

N = 6


def kernel_ludcmp(N, A, b, x, y):
    for i in range(N):
        for j in range(i):
            w = A[i][j]
            for k in range(j):
                w -= A[i][k] * A[k][j]
            A[i][j] = w / A[j][j]
        for j in range(i, N):
            w = A[i][j]
            for k in range(i):
                w -= A[i][k] * A[k][j]
            A[i][j] = w
    for i in range(N):
        w = b[i]
        for j in range(i):
            w -= A[i][j] * y[j]
        y[i] = w
    for i in range(N - 1, -1, -1):
        w = y[i]
        for j in range(i + 1, N):
            w -= A[i][j] * x[j]
        x[i] = w / A[i][i]
