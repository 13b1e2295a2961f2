# conv2d-strided: 2-d convolution with stride 2 in both spatial dimensions and dilation 2 in
# the vertical one (literal coefficients, O[k][p][q] += W[k][c][r][s] * I[c][2p + 2r][2q + s]).
# O is K x P x Q, W is K x C x R x S (Python twin of conv2d-strided.c).

K = 3
C = 2
P = 3
Q = 4
R = 2
S = 3


def kernel_conv2d_strided(K, C, P, Q, R, S, O, W, I):
    for k in range(K):
        for p in range(P):
            for q in range(Q):
                O[k, p, q] = 0.0
                for c in range(C):
                    for r in range(R):
                        for s in range(S):
                            O[k, p, q] += W[k, c, r, s] * I[c, 2 * p + 2 * r, 2 * q + s]
