# expect: 8:15 non-affine subscript
N = 8


def f(A):
    for i in range(N):
        for j in range(N):
            A[i * j] = 0.0
