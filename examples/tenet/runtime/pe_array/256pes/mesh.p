{ PE[p0, p1] : 0 <= p0 <= 15 and 0 <= p1 <= 15 }
{ PE[i, j] -> PE[-1 + i, j]; PE[i, j] -> PE[i, -1 + j]; PE[i, j] -> PE[1 + i, -1 + j]; PE[i, j] -> PE[-1 + i, -1 + j] }
256 1024 64 16
