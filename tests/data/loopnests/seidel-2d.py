# seidel-2d: 9-point Gauss-Seidel sweep in place, TSTEPS times (Python twin of seidel-2d.c).

TSTEPS = 2
N = 7


def kernel_seidel_2d(TSTEPS, N, A):
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i][j] = (
                    A[i - 1][j - 1]
                    + A[i - 1][j]
                    + A[i - 1][j + 1]
                    + A[i][j - 1]
                    + A[i][j]
                    + A[i][j + 1]
                    + A[i + 1][j - 1]
                    + A[i + 1][j]
                    + A[i + 1][j + 1]
                ) / 9.0
