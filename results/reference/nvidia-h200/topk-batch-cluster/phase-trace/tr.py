import sys, statistics as st
def load(f):
    dumps=[]; cur=None
    for l in open(f):
        if l.startswith('#'):
            cur={'hdr':l.strip(),'b':[]}; dumps.append(cur)
        else:
            v=[int(x) for x in l.split()]
            cur['b'].append(v)
    return dumps
for f in sys.argv[1:]:
    seen=set()
    for d in load(f):
        if d['hdr'] in seen: continue
        seen.add(d['hdr'])
        B=[b for b in d['b'] if b[0]>0]
        t0=min(b[0] for b in B)
        ends=[b[7] for b in B if b[7]>0]
        print(d['hdr'], 'blocks',len(B),'span us %.1f'%((max(ends)-t0)/1e3))
        starts=sorted((b[0]-t0)/1e3 for b in B)
        print('  start: min %.1f med %.1f max %.1f'%(starts[0],starts[len(starts)//2],starts[-1]))
        # phase durations
        names=['pro','samp','gath','cnt','rounds','write','wait']
        idx=[(0,1),(1,2),(2,3),(3,4),(4,5),(5,6),(6,7)]
        row=[]
        for nm,(a,b) in zip(names,idx):
            xs=[(x[b]-x[a])/1e3 for x in B if x[a]>0 and x[b]>0 and x[b]>=x[a]]
            if xs: row.append('%s %.1f/%.1f'%(nm,st.median(xs),max(xs)))
            else: row.append('%s -'%nm)
        print('  med/max us:',' | '.join(row))
        # absolute timeline: median time (from t0) at which each phase ends
        ab=[]
        for i in range(1,8):
            xs=[(x[i]-t0)/1e3 for x in B if x[i]>0]
            if xs: ab.append('t%d %.1f'%(i,st.median(xs)))
        print('  abs median:',' '.join(ab))
