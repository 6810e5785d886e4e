// `using` declarations over relpos objects: compiled by tests/js/types.test.mjs with target esnext only (its
// default lib has Disposable; es2022's does not, which is why the .d.ts files declare Symbol.dispose themselves).
import relpos, { init } from 'relpos';

export async function scoped(): Promise<number> {
  using rp = await init();
  using model = await rp.loadModel('https://example.com/model/');
  using run = await relpos.lab.train({ scheme: 'rope' });
  return rp.threads + model.info.hiddenSize + run.losses.length;
}
