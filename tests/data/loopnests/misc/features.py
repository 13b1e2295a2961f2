"""Python twin of features.c."""

N = 6


def features(A, B, x, y):
    for i in range(0, N, 2):
        for j in range(max(0, i - 1), min(N, i + 2)):
            if j % 2 == 0:
                A[i, j] = 1.0
            else:
                A[i][j // 2] += B[j]
        x = y = B[i]
    t = x
    t += 1
    for i in range(N - 1, 0, -2):
        if 2 <= i < 4:
            B[i] = 0.0
        elif i == 1:
            B[i] = 1.0
