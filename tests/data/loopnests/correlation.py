# correlation: column means and standard deviations (a deviation at or below eps counts as
# 1.0), normalisation, then the symmetric M x M correlation matrix of data (N rows, M columns)
# (Python twin of correlation.c).
# ruff: noqa: F821 (sqrt is a pure function the importer knows by name)

M = 5
N = 7


def kernel_correlation(M, N, float_n, eps, data, corr, mean, stddev):
    for j in range(M):
        mean[j] = 0.0
        for i in range(N):
            mean[j] += data[i][j]
        mean[j] /= float_n
    for j in range(M):
        stddev[j] = 0.0
        for i in range(N):
            stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j])
        stddev[j] /= float_n
        stddev[j] = sqrt(stddev[j])
        stddev[j] = 1.0 if stddev[j] <= eps else stddev[j]
    for i in range(N):
        for j in range(M):
            data[i][j] -= mean[j]
            data[i][j] /= sqrt(float_n) * stddev[j]
    for i in range(M - 1):
        corr[i][i] = 1.0
        for j in range(i + 1, M):
            corr[i][j] = 0.0
            for k in range(N):
                corr[i][j] += data[k][i] * data[k][j]
            corr[j][i] = corr[i][j]
    corr[M - 1][M - 1] = 1.0
