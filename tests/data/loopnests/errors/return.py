# expect: 8:5 return inside the kernel
N = 8


def f(A):
    for i in range(N):
        A[i] = 0.0
    return A
