{ S[i, j, k, l] -> PE[((i) mod 256)] }
{ S[i, j, k, l] -> T[(floor((i)/256)), (k), (j), (l)] }
