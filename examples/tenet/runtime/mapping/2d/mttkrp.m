{ S[i, j, k, l] -> PE[((i) mod 16), ((j) mod 16)] }
{ S[i, j, k, l] -> T[(k), (floor((i)/16)), (floor((j)/16)), (l + (i) mod 16 + (j) mod 16)] }
