# fdtd-2d: 2-d finite-difference time-domain update of ex, ey, hz for TMAX steps
# (Python twin of fdtd-2d.c).

TMAX = 3
NX = 5
NY = 6


def kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, fict):
    for t in range(TMAX):
        for j in range(NY):
            ey[0][j] = fict[t]
        for i in range(1, NX):
            for j in range(NY):
                ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j])
        for i in range(NX):
            for j in range(1, NY):
                ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1])
        for i in range(NX - 1):
            for j in range(NY - 1):
                hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j])
