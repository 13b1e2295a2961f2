# downsample: every second row i, a window of columns max(0, i-1) <= j < min(M, i+2); a chained
# assignment copies A[i][j] below the diagonal and B[j] elsewhere (a ternary on loop
# variables, so only the taken branch is read) into the scalar t and s[j], then out[i][j] is
# scaled from t (Python twin of downsample.c).

N = 9
M = 6


def kernel_downsample(N, M, A, B, s, out):
    for i in range(0, N, 2):
        for j in range(max(0, i - 1), min(M, i + 2)):
            t = s[j] = A[i][j] if j < i else B[j]
            out[i][j] = 0.5 * t
