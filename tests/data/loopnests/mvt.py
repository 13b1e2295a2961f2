# mvt: x1 += A * y_1 and x2 += A^T * y_2 (Python twin of mvt.c).

N = 6


def kernel_mvt(N, x1, x2, y_1, y_2, A):
    for i in range(N):
        for j in range(N):
            x1[i] = x1[i] + A[i][j] * y_1[j]
    for i in range(N):
        for j in range(N):
            x2[i] = x2[i] + A[j][i] * y_2[j]
