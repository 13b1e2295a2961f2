# expect: 9:13 break inside the kernel
N = 8


def f(A):
    for i in range(N):
        A[i] = 0.0
        if i > 4:
            break
