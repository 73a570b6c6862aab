import csv,sys,collections,re
rows=list(csv.reader(open(sys.argv[1])))
kern=None; blocks={}
i=0
while i<len(rows):
    r=rows[i]
    if r and r[0]=='Kernel Name':
        kern='cublas' if 'xmma' in r[1] else 'ours'; hdr=rows[i+1]; blocks[kern]=(hdr,[]); i+=2; continue
    if kern and len(r)>5: blocks[kern][1].append(r)
    i+=1
for k,(h,rs) in blocks.items():
    cols=[c for c in h if c.startswith('stall_') and 'Not Issued' not in c]
    tot=collections.Counter(); ops=collections.Counter(); samples=0; opstall=collections.defaultdict(collections.Counter)
    for r in rs:
        d=dict(zip(h,r))
        s=int(d['Warp Stall Sampling (All Samples)'] or 0); samples+=s
        m=re.match(r'\s*(@!?U?P\w+\s+)?([A-Z0-9_]+(\.[A-Z0-9_]+)*)',d['Source'])
        op=m.group(2).split('.')[0] if m else '?'
        ops[op]+=s
        for c in cols:
            v=int(d[c] or 0); tot[c]+=v; opstall[op][c]+=v
    print(k,'samples',samples)
    for c,v in tot.most_common(12): print(f'   {c:28s} {v:8d} {100*v/samples:5.1f}%')
    print('  by opcode:',[(o,round(100*v/samples,1)) for o,v in ops.most_common(10)])
    for o,_ in ops.most_common(5):
        print('   ',o,[(c[6:],round(100*v/samples,1)) for c,v in opstall[o].most_common(4)])
