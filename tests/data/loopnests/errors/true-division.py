# expect: 7:11 true division
N = 4


def f(A):
    for i in range(N):
        A[i / 2] = 0.0
