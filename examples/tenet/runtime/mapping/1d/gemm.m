{ S[i, j, k] -> PE[((j) mod 256)] }
{ S[i, j, k] -> T[(floor((j)/256)), (i), (k)] }
