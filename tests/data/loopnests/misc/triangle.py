"""Python twin of triangle.c (no labels in Python: the last statement is S5)."""

N = 5


def triangle(s, L, x, y, z, w, v, a, b):
    for i in range(N):
        s[i] = 0.0
        for j in range(0, i + 1):
            s[i] += L[i, j] * x[j]
        y[2 * i + 1] = s[i]
    for k in range(1, N, 2):
        z[k] = x[k - 1]
    for k in range(N - 1, -1, -2):
        w[k] = x[k]
    for i in range(N):
        v[i] = a[i] if i < 2 else b[i + 1]
