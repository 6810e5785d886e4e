// Text for the Real model section (demo/sections/real-model.js): the similarity matrix's default
// sentences and the nearest-neighbour corpus. Written for this demo; short, plain English on varied
// topics, so that a query finds its neighbour by meaning rather than by shared words.

// Two paraphrase pairs (guitar, flood) and three sentences unrelated to them and to each other.
export const DEFAULT_SENTENCES = Object.freeze([
  'A man is playing a guitar.',
  'Someone is strumming an acoustic guitar on stage.',
  'Heavy rain flooded the streets of the town.',
  "After the storm, the town's roads were under water.",
  'The central bank raised interest rates again.',
  'My cat likes to sleep in a patch of sunlight.',
  'She is learning to bake sourdough bread.',
]);
// Indices into DEFAULT_SENTENCES: pairs that mean the same thing.
export const PARAPHRASE_PAIRS = Object.freeze([[0, 1], [2, 3]]);

export const CORPUS = Object.freeze([
  // cooking
  'Simmer the tomato sauce for twenty minutes, stirring now and then.',
  'Knead the dough until it is smooth and springs back when pressed.',
  'A pinch of salt brings out the sweetness in caramel.',
  'Leftover rice makes the best fried rice.',
  // sport
  'The striker scored twice in the second half to win the match.',
  'She finished the marathon in just under four hours.',
  'The tennis final went to a fifth-set tie-break.',
  'Our swimming club trains at six every morning.',
  // weather and climate
  'Forecasters expect snow on the hills by the weekend.',
  'The river burst its banks after a week of heavy rain.',
  'Summers here are getting hotter and drier every year.',
  'A thick fog closed the airport for most of the morning.',
  // technology
  'Restarting the router often fixes a slow internet connection.',
  'The new phone charges fully in about half an hour.',
  'Back up your photos before you update the operating system.',
  'The program crashed because it ran out of memory.',
  // health
  'Drinking enough water helps prevent headaches.',
  'A short walk after meals can lower blood sugar.',
  'Most adults need seven to nine hours of sleep a night.',
  'Wash your hands with soap to stop colds from spreading.',
  // travel
  'The night train from Vienna arrives in Venice at dawn.',
  'Remember to renew your passport well before your trip.',
  'The old town is best explored on foot.',
  'Our flight was delayed for three hours by a technical fault.',
  // animals
  'The dog waits by the door every evening for its owner.',
  'Owls hunt at night and can turn their heads a long way round.',
  'Bees visit thousands of flowers to make a spoonful of honey.',
  'The kitten chased a ball of wool across the kitchen floor.',
  // music
  'The orchestra rehearsed the symphony for the concert on Friday.',
  'He practises the piano for an hour before school.',
  'The band played their new song for the first time tonight.',
  'Learning to read sheet music takes patience.',
  // money
  'Shares fell sharply after the company missed its profit forecast.',
  'Setting aside a little each month builds an emergency fund.',
  'The bank approved their mortgage application.',
  'Prices in the shops rose faster than wages this year.',
  // space
  'Mercury is the smallest planet and the nearest one to the Sun.',
  'The telescope photographed a galaxy millions of light years away.',
  'Astronauts on the space station grow lettuce in orbit.',
  'A total solar eclipse turns day into night for a few minutes.',
  // home and garden
  'Water tomato plants at the base, not on the leaves.',
  'Patching a punctured inner tube on a bike takes about ten minutes.',
  'Bleed the radiators before the heating season starts.',
  'Plant tulip bulbs in the autumn for flowers in spring.',
  // history and learning
  'The castle was built in the twelfth century to guard the river crossing.',
  'The printing press made books cheap enough for ordinary people.',
  'She is studying for her chemistry exam next week.',
  'The library lends out e-books as well as paper ones.',
]);

// Example queries offered as buttons; none shares its key words with its best match.
export const EXAMPLE_QUERIES = Object.freeze([
  'My bicycle has a flat tyre.',
  'Which planet is closest to the sun?',
  'How can I get my wifi working faster?',
  'A feline playing with yarn',
]);
