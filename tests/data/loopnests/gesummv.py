# gesummv: y := alpha*A*x + beta*B*x (Python twin of gesummv.c).

N = 6


def kernel_gesummv(N, alpha, beta, A, B, tmp, x, y):
    for i in range(N):
        tmp[i] = 0.0
        y[i] = 0.0
        for j in range(N):
            tmp[i] = A[i][j] * x[j] + tmp[i]
            y[i] = B[i][j] * x[j] + y[i]
        y[i] = alpha * tmp[i] + beta * y[i]
