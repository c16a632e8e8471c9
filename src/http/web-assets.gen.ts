// Written by scripts/build.ts for this compile; put back to the committed version after it.
// @ts-nocheck
import type { EmbeddedWeb } from './web-bundle'
import f0 from '../../dist/web/main-np3jssxp.js' with { type: 'file' }
import f1 from '../../dist/web/main-3qmgh1dv.js' with { type: 'file' }
import f2 from '../../dist/web/main-nd6jkpkx.js' with { type: 'file' }
import f3 from '../../dist/web/main-nd6jkpkx.js.gz' with { type: 'file' }
import f4 from '../../dist/web/main-nd6jkpkx.js.br' with { type: 'file' }
import f5 from '../../dist/web/main-21wv84qf.js' with { type: 'file' }
import f6 from '../../dist/web/main-21wv84qf.js.gz' with { type: 'file' }
import f7 from '../../dist/web/main-21wv84qf.js.br' with { type: 'file' }
import f8 from '../../dist/web/main-350gdnk2.js' with { type: 'file' }
import f9 from '../../dist/web/main-m5wq4b67.js' with { type: 'file' }
import f10 from '../../dist/web/main-m5wq4b67.js.gz' with { type: 'file' }
import f11 from '../../dist/web/main-m5wq4b67.js.br' with { type: 'file' }
import f12 from '../../dist/web/main-ym24x69s.js' with { type: 'file' }
import f13 from '../../dist/web/main-ym24x69s.js.gz' with { type: 'file' }
import f14 from '../../dist/web/main-ym24x69s.js.br' with { type: 'file' }
import f15 from '../../dist/web/main-wn68e5jm.js' with { type: 'file' }
import f16 from '../../dist/web/main-wn68e5jm.js.gz' with { type: 'file' }
import f17 from '../../dist/web/main-wn68e5jm.js.br' with { type: 'file' }
import f18 from '../../dist/web/main-2pnryf4a.js' with { type: 'file' }
import f19 from '../../dist/web/main-m3zjcqjp.js' with { type: 'file' }
import f20 from '../../dist/web/main-m3zjcqjp.js.gz' with { type: 'file' }
import f21 from '../../dist/web/main-m3zjcqjp.js.br' with { type: 'file' }
import f22 from '../../dist/web/main-d752pcqs.js' with { type: 'file' }
import f23 from '../../dist/web/main-d752pcqs.js.gz' with { type: 'file' }
import f24 from '../../dist/web/main-d752pcqs.js.br' with { type: 'file' }
import f25 from '../../dist/web/main-cqntvh6s.js' with { type: 'file' }
import f26 from '../../dist/web/main-cqntvh6s.js.gz' with { type: 'file' }
import f27 from '../../dist/web/main-cqntvh6s.js.br' with { type: 'file' }
import f28 from '../../dist/web/main-ad9aq81w.js' with { type: 'file' }
import f29 from '../../dist/web/main-ad9aq81w.js.gz' with { type: 'file' }
import f30 from '../../dist/web/main-ad9aq81w.js.br' with { type: 'file' }
import f31 from '../../dist/web/main-bfa91sc2.js' with { type: 'file' }
import f32 from '../../dist/web/main-bfa91sc2.js.gz' with { type: 'file' }
import f33 from '../../dist/web/main-bfa91sc2.js.br' with { type: 'file' }
import f34 from '../../dist/web/main-x8bq826d.js' with { type: 'file' }
import f35 from '../../dist/web/main-x8bq826d.js.gz' with { type: 'file' }
import f36 from '../../dist/web/main-x8bq826d.js.br' with { type: 'file' }
import f37 from '../../dist/web/main-55q4q094.js' with { type: 'file' }
import f38 from '../../dist/web/main-x5xgde3p.js' with { type: 'file' }
import f39 from '../../dist/web/main-x5xgde3p.js.gz' with { type: 'file' }
import f40 from '../../dist/web/main-x5xgde3p.js.br' with { type: 'file' }
import f41 from '../../dist/web/main-msjwk4cd.js' with { type: 'file' }
import f42 from '../../dist/web/main-msjwk4cd.js.gz' with { type: 'file' }
import f43 from '../../dist/web/main-msjwk4cd.js.br' with { type: 'file' }
import f44 from '../../dist/web/main-1t1ye43j.js' with { type: 'file' }
import f45 from '../../dist/web/main-1t1ye43j.js.gz' with { type: 'file' }
import f46 from '../../dist/web/main-1t1ye43j.js.br' with { type: 'file' }
import f47 from '../../dist/web/main-a2x2xz0v.js' with { type: 'file' }
import f48 from '../../dist/web/main-a2x2xz0v.js.gz' with { type: 'file' }
import f49 from '../../dist/web/main-a2x2xz0v.js.br' with { type: 'file' }
import f50 from '../../dist/web/main-zvs50x8n.js' with { type: 'file' }
import f51 from '../../dist/web/main-zvs50x8n.js.gz' with { type: 'file' }
import f52 from '../../dist/web/main-zvs50x8n.js.br' with { type: 'file' }
import f53 from '../../dist/web/main-4z23f4rs.js' with { type: 'file' }
import f54 from '../../dist/web/main-4z23f4rs.js.gz' with { type: 'file' }
import f55 from '../../dist/web/main-4z23f4rs.js.br' with { type: 'file' }
import f56 from '../../dist/web/main-89wd6aps.js' with { type: 'file' }
import f57 from '../../dist/web/main-gkaqzr0n.js' with { type: 'file' }
import f58 from '../../dist/web/main-gkaqzr0n.js.gz' with { type: 'file' }
import f59 from '../../dist/web/main-gkaqzr0n.js.br' with { type: 'file' }
import f60 from '../../dist/web/main-73qzds86.js' with { type: 'file' }
import f61 from '../../dist/web/main-73qzds86.js.gz' with { type: 'file' }
import f62 from '../../dist/web/main-73qzds86.js.br' with { type: 'file' }
import f63 from '../../dist/web/main-jj8gbphh.js' with { type: 'file' }
import f64 from '../../dist/web/main-jj8gbphh.js.gz' with { type: 'file' }
import f65 from '../../dist/web/main-jj8gbphh.js.br' with { type: 'file' }
import f66 from '../../dist/web/channels-vxrsgd5r.js' with { type: 'file' }
import f67 from '../../dist/web/channels-vxrsgd5r.js.gz' with { type: 'file' }
import f68 from '../../dist/web/channels-vxrsgd5r.js.br' with { type: 'file' }
import f69 from '../../dist/web/webhooks-8p7h5rte.js' with { type: 'file' }
import f70 from '../../dist/web/webhooks-8p7h5rte.js.gz' with { type: 'file' }
import f71 from '../../dist/web/webhooks-8p7h5rte.js.br' with { type: 'file' }
import f72 from '../../dist/web/pricing-4v98pq39.js' with { type: 'file' }
import f73 from '../../dist/web/pricing-4v98pq39.js.gz' with { type: 'file' }
import f74 from '../../dist/web/pricing-4v98pq39.js.br' with { type: 'file' }
import f75 from '../../dist/web/admin-wrkz62a7.js' with { type: 'file' }
import f76 from '../../dist/web/admin-wrkz62a7.js.gz' with { type: 'file' }
import f77 from '../../dist/web/admin-wrkz62a7.js.br' with { type: 'file' }
import f78 from '../../dist/web/not-found-2sjghs6e.js' with { type: 'file' }
import f79 from '../../dist/web/alert-rule-tga1qx6m.js' with { type: 'file' }
import f80 from '../../dist/web/alert-rule-tga1qx6m.js.gz' with { type: 'file' }
import f81 from '../../dist/web/alert-rule-tga1qx6m.js.br' with { type: 'file' }
import f82 from '../../dist/web/alert-silences-c8f5xr6d.js' with { type: 'file' }
import f83 from '../../dist/web/alert-silences-c8f5xr6d.js.gz' with { type: 'file' }
import f84 from '../../dist/web/alert-silences-c8f5xr6d.js.br' with { type: 'file' }
import f85 from '../../dist/web/alert-ygt1t3rz.js' with { type: 'file' }
import f86 from '../../dist/web/alert-ygt1t3rz.js.gz' with { type: 'file' }
import f87 from '../../dist/web/alert-ygt1t3rz.js.br' with { type: 'file' }
import f88 from '../../dist/web/keys-wet93cfa.js' with { type: 'file' }
import f89 from '../../dist/web/keys-wet93cfa.js.gz' with { type: 'file' }
import f90 from '../../dist/web/keys-wet93cfa.js.br' with { type: 'file' }
import f91 from '../../dist/web/members-7d4cbpgs.js' with { type: 'file' }
import f92 from '../../dist/web/members-7d4cbpgs.js.gz' with { type: 'file' }
import f93 from '../../dist/web/members-7d4cbpgs.js.br' with { type: 'file' }
import f94 from '../../dist/web/billing-rgf3gb8y.js' with { type: 'file' }
import f95 from '../../dist/web/billing-rgf3gb8y.js.gz' with { type: 'file' }
import f96 from '../../dist/web/billing-rgf3gb8y.js.br' with { type: 'file' }
import f97 from '../../dist/web/ai-kpqhh79v.js' with { type: 'file' }
import f98 from '../../dist/web/ai-kpqhh79v.js.gz' with { type: 'file' }
import f99 from '../../dist/web/ai-kpqhh79v.js.br' with { type: 'file' }
import f100 from '../../dist/web/account-66fq9zy4.js' with { type: 'file' }
import f101 from '../../dist/web/account-66fq9zy4.js.gz' with { type: 'file' }
import f102 from '../../dist/web/account-66fq9zy4.js.br' with { type: 'file' }
import f103 from '../../dist/web/checks-8sf6q1ts.js' with { type: 'file' }
import f104 from '../../dist/web/checks-8sf6q1ts.js.gz' with { type: 'file' }
import f105 from '../../dist/web/checks-8sf6q1ts.js.br' with { type: 'file' }
import f106 from '../../dist/web/check-edit-v392ecvj.js' with { type: 'file' }
import f107 from '../../dist/web/check-edit-v392ecvj.js.gz' with { type: 'file' }
import f108 from '../../dist/web/check-edit-v392ecvj.js.br' with { type: 'file' }
import f109 from '../../dist/web/status-pages-qtzntdwb.js' with { type: 'file' }
import f110 from '../../dist/web/status-pages-qtzntdwb.js.gz' with { type: 'file' }
import f111 from '../../dist/web/status-pages-qtzntdwb.js.br' with { type: 'file' }
import f112 from '../../dist/web/status-page-aj402xnb.js' with { type: 'file' }
import f113 from '../../dist/web/status-page-aj402xnb.js.gz' with { type: 'file' }
import f114 from '../../dist/web/status-page-aj402xnb.js.br' with { type: 'file' }
import f115 from '../../dist/web/check-qxyh9a7s.js' with { type: 'file' }
import f116 from '../../dist/web/check-qxyh9a7s.js.gz' with { type: 'file' }
import f117 from '../../dist/web/check-qxyh9a7s.js.br' with { type: 'file' }
import f118 from '../../dist/web/recommendations-5ww01ta0.js' with { type: 'file' }
import f119 from '../../dist/web/recommendations-5ww01ta0.js.gz' with { type: 'file' }
import f120 from '../../dist/web/recommendations-5ww01ta0.js.br' with { type: 'file' }
import f121 from '../../dist/web/alerts-d2020hrw.js' with { type: 'file' }
import f122 from '../../dist/web/alerts-d2020hrw.js.gz' with { type: 'file' }
import f123 from '../../dist/web/alerts-d2020hrw.js.br' with { type: 'file' }
import f124 from '../../dist/web/alert-rules-r81sxtgr.js' with { type: 'file' }
import f125 from '../../dist/web/alert-rules-r81sxtgr.js.gz' with { type: 'file' }
import f126 from '../../dist/web/alert-rules-r81sxtgr.js.br' with { type: 'file' }
import f127 from '../../dist/web/signin-54e2j06p.js' with { type: 'file' }
import f128 from '../../dist/web/signin-54e2j06p.js.gz' with { type: 'file' }
import f129 from '../../dist/web/signin-54e2j06p.js.br' with { type: 'file' }
import f130 from '../../dist/web/signup-nw64sxyh.js' with { type: 'file' }
import f131 from '../../dist/web/invite-j932pxfh.js' with { type: 'file' }
import f132 from '../../dist/web/invite-j932pxfh.js.gz' with { type: 'file' }
import f133 from '../../dist/web/invite-j932pxfh.js.br' with { type: 'file' }
import f134 from '../../dist/web/dashboard-6xb3mxxy.js' with { type: 'file' }
import f135 from '../../dist/web/dashboard-6xb3mxxy.js.gz' with { type: 'file' }
import f136 from '../../dist/web/dashboard-6xb3mxxy.js.br' with { type: 'file' }
import f137 from '../../dist/web/add-device-g29n6m65.js' with { type: 'file' }
import f138 from '../../dist/web/add-device-g29n6m65.js.gz' with { type: 'file' }
import f139 from '../../dist/web/add-device-g29n6m65.js.br' with { type: 'file' }
import f140 from '../../dist/web/device-9kwb8f1s.js' with { type: 'file' }
import f141 from '../../dist/web/device-9kwb8f1s.js.gz' with { type: 'file' }
import f142 from '../../dist/web/device-9kwb8f1s.js.br' with { type: 'file' }
import f143 from '../../dist/web/containers-5cdcanm5.js' with { type: 'file' }
import f144 from '../../dist/web/containers-5cdcanm5.js.gz' with { type: 'file' }
import f145 from '../../dist/web/containers-5cdcanm5.js.br' with { type: 'file' }
import f146 from '../../dist/web/dashboard-g2ca03qx.css' with { type: 'file' }
import f147 from '../../dist/web/dashboard-g2ca03qx.css.gz' with { type: 'file' }
import f148 from '../../dist/web/dashboard-g2ca03qx.css.br' with { type: 'file' }
import f149 from '../../dist/web/device-wh3zm03c.css' with { type: 'file' }
import f150 from '../../dist/web/device-wh3zm03c.css.gz' with { type: 'file' }
import f151 from '../../dist/web/device-wh3zm03c.css.br' with { type: 'file' }
import f152 from '../../dist/web/containers-dc1cyypw.css' with { type: 'file' }
import f153 from '../../dist/web/containers-dc1cyypw.css.gz' with { type: 'file' }
import f154 from '../../dist/web/containers-dc1cyypw.css.br' with { type: 'file' }
import f155 from '../../dist/web/alerts-ejpctsts.css' with { type: 'file' }
import f156 from '../../dist/web/alerts-ejpctsts.css.gz' with { type: 'file' }
import f157 from '../../dist/web/alerts-ejpctsts.css.br' with { type: 'file' }
import f158 from '../../dist/web/check-desbm9x6.css' with { type: 'file' }
import f159 from '../../dist/web/check-desbm9x6.css.gz' with { type: 'file' }
import f160 from '../../dist/web/check-desbm9x6.css.br' with { type: 'file' }
import f161 from '../../dist/web/main-4c5s6j5r.css' with { type: 'file' }
import f162 from '../../dist/web/main-4c5s6j5r.css.gz' with { type: 'file' }
import f163 from '../../dist/web/main-4c5s6j5r.css.br' with { type: 'file' }
import f164 from '../../dist/web/check-edit-s9fakq1y.css' with { type: 'file' }
import f165 from '../../dist/web/check-edit-s9fakq1y.css.gz' with { type: 'file' }
import f166 from '../../dist/web/check-edit-s9fakq1y.css.br' with { type: 'file' }
import f167 from '../../dist/web/checks-j6ppcm8t.css' with { type: 'file' }
import f168 from '../../dist/web/checks-j6ppcm8t.css.gz' with { type: 'file' }
import f169 from '../../dist/web/checks-j6ppcm8t.css.br' with { type: 'file' }

export const EMBEDDED_WEB: EmbeddedWeb | null = {
  entry: 'main-bfa91sc2.js',
  styles: ["dashboard-g2ca03qx.css","device-wh3zm03c.css","containers-dc1cyypw.css","alerts-ejpctsts.css","check-desbm9x6.css","main-4c5s6j5r.css","check-edit-s9fakq1y.css","checks-j6ppcm8t.css"],
  files: [
    { name: 'main-np3jssxp.js', path: f0, gzip: null, br: null },
    { name: 'main-3qmgh1dv.js', path: f1, gzip: null, br: null },
    { name: 'main-nd6jkpkx.js', path: f2, gzip: f3, br: f4 },
    { name: 'main-21wv84qf.js', path: f5, gzip: f6, br: f7 },
    { name: 'main-350gdnk2.js', path: f8, gzip: null, br: null },
    { name: 'main-m5wq4b67.js', path: f9, gzip: f10, br: f11 },
    { name: 'main-ym24x69s.js', path: f12, gzip: f13, br: f14 },
    { name: 'main-wn68e5jm.js', path: f15, gzip: f16, br: f17 },
    { name: 'main-2pnryf4a.js', path: f18, gzip: null, br: null },
    { name: 'main-m3zjcqjp.js', path: f19, gzip: f20, br: f21 },
    { name: 'main-d752pcqs.js', path: f22, gzip: f23, br: f24 },
    { name: 'main-cqntvh6s.js', path: f25, gzip: f26, br: f27 },
    { name: 'main-ad9aq81w.js', path: f28, gzip: f29, br: f30 },
    { name: 'main-bfa91sc2.js', path: f31, gzip: f32, br: f33 },
    { name: 'main-x8bq826d.js', path: f34, gzip: f35, br: f36 },
    { name: 'main-55q4q094.js', path: f37, gzip: null, br: null },
    { name: 'main-x5xgde3p.js', path: f38, gzip: f39, br: f40 },
    { name: 'main-msjwk4cd.js', path: f41, gzip: f42, br: f43 },
    { name: 'main-1t1ye43j.js', path: f44, gzip: f45, br: f46 },
    { name: 'main-a2x2xz0v.js', path: f47, gzip: f48, br: f49 },
    { name: 'main-zvs50x8n.js', path: f50, gzip: f51, br: f52 },
    { name: 'main-4z23f4rs.js', path: f53, gzip: f54, br: f55 },
    { name: 'main-89wd6aps.js', path: f56, gzip: null, br: null },
    { name: 'main-gkaqzr0n.js', path: f57, gzip: f58, br: f59 },
    { name: 'main-73qzds86.js', path: f60, gzip: f61, br: f62 },
    { name: 'main-jj8gbphh.js', path: f63, gzip: f64, br: f65 },
    { name: 'channels-vxrsgd5r.js', path: f66, gzip: f67, br: f68 },
    { name: 'webhooks-8p7h5rte.js', path: f69, gzip: f70, br: f71 },
    { name: 'pricing-4v98pq39.js', path: f72, gzip: f73, br: f74 },
    { name: 'admin-wrkz62a7.js', path: f75, gzip: f76, br: f77 },
    { name: 'not-found-2sjghs6e.js', path: f78, gzip: null, br: null },
    { name: 'alert-rule-tga1qx6m.js', path: f79, gzip: f80, br: f81 },
    { name: 'alert-silences-c8f5xr6d.js', path: f82, gzip: f83, br: f84 },
    { name: 'alert-ygt1t3rz.js', path: f85, gzip: f86, br: f87 },
    { name: 'keys-wet93cfa.js', path: f88, gzip: f89, br: f90 },
    { name: 'members-7d4cbpgs.js', path: f91, gzip: f92, br: f93 },
    { name: 'billing-rgf3gb8y.js', path: f94, gzip: f95, br: f96 },
    { name: 'ai-kpqhh79v.js', path: f97, gzip: f98, br: f99 },
    { name: 'account-66fq9zy4.js', path: f100, gzip: f101, br: f102 },
    { name: 'checks-8sf6q1ts.js', path: f103, gzip: f104, br: f105 },
    { name: 'check-edit-v392ecvj.js', path: f106, gzip: f107, br: f108 },
    { name: 'status-pages-qtzntdwb.js', path: f109, gzip: f110, br: f111 },
    { name: 'status-page-aj402xnb.js', path: f112, gzip: f113, br: f114 },
    { name: 'check-qxyh9a7s.js', path: f115, gzip: f116, br: f117 },
    { name: 'recommendations-5ww01ta0.js', path: f118, gzip: f119, br: f120 },
    { name: 'alerts-d2020hrw.js', path: f121, gzip: f122, br: f123 },
    { name: 'alert-rules-r81sxtgr.js', path: f124, gzip: f125, br: f126 },
    { name: 'signin-54e2j06p.js', path: f127, gzip: f128, br: f129 },
    { name: 'signup-nw64sxyh.js', path: f130, gzip: null, br: null },
    { name: 'invite-j932pxfh.js', path: f131, gzip: f132, br: f133 },
    { name: 'dashboard-6xb3mxxy.js', path: f134, gzip: f135, br: f136 },
    { name: 'add-device-g29n6m65.js', path: f137, gzip: f138, br: f139 },
    { name: 'device-9kwb8f1s.js', path: f140, gzip: f141, br: f142 },
    { name: 'containers-5cdcanm5.js', path: f143, gzip: f144, br: f145 },
    { name: 'dashboard-g2ca03qx.css', path: f146, gzip: f147, br: f148 },
    { name: 'device-wh3zm03c.css', path: f149, gzip: f150, br: f151 },
    { name: 'containers-dc1cyypw.css', path: f152, gzip: f153, br: f154 },
    { name: 'alerts-ejpctsts.css', path: f155, gzip: f156, br: f157 },
    { name: 'check-desbm9x6.css', path: f158, gzip: f159, br: f160 },
    { name: 'main-4c5s6j5r.css', path: f161, gzip: f162, br: f163 },
    { name: 'check-edit-s9fakq1y.css', path: f164, gzip: f165, br: f166 },
    { name: 'checks-j6ppcm8t.css', path: f167, gzip: f168, br: f169 },
  ],
}
