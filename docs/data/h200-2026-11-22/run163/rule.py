# Rung 13's auto_suits after run 162 (13_tma.cu), for canonical m, n (row-major C) and layouts
# NN / NT / TN and ColMajor NN; prints the FP32 kernel auto should pick for each LAYOUT:OPS:MxNxK argument.
import sys
def cd(a, b): return -(-a // b)
def tail_tiles(tiles, kt, blocks, fixed=11.0, after_whole=11.0):
    r = tiles % blocks
    if r == 0: return 0
    return r if kt * (blocks - r) / blocks > fixed + (after_whole if tiles > blocks else 0) else 0
def suits(m, n, k, tt=False, sms=132):
    if tt: return False
    tiles = cd(m, 128) * cd(n, 256); r10 = cd(m, 128) * cd(n, 128)
    if n <= 128 and 2 * r10 >= sms: return False
    if tiles >= sms: return True
    kt = cd(k, 8)
    rung13 = 5.4 + 11.0 + tiles * kt / sms if tail_tiles(tiles, kt, sms) else 5.4 + kt
    rung10 = 4.6 + 0.58 * kt * (1.8 if r10 > sms else 1.0)
    return rung13 < rung10
for s in sys.argv[1:]:
    lay, ops, shp = s.split(':')
    m, n, k = map(int, shp.split('x'))
    if lay == 'col': m, n = n, m
    print(s, 'simt-13' if suits(m, n, k, lay == 'row' and ops == 'TT') else 'simt-10')
