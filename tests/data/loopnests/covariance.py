# covariance: column means, centring, then the symmetric M x M covariance of data (N rows,
# M columns), float_n = N as a float (Python twin of covariance.c).

M = 5
N = 7


def kernel_covariance(M, N, float_n, data, cov, mean):
    for j in range(M):
        mean[j] = 0.0
        for i in range(N):
            mean[j] += data[i][j]
        mean[j] /= float_n
    for i in range(N):
        for j in range(M):
            data[i][j] -= mean[j]
    for i in range(M):
        for j in range(i, M):
            cov[i][j] = 0.0
            for k in range(N):
                cov[i][j] += data[k][i] * data[k][j]
            cov[i][j] /= float_n - 1.0
            cov[j][i] = cov[i][j]
