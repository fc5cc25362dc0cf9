/**
 * Deterministic synthetic profile facts and search queries: templates × vocabulary, drawn by a
 * seeded PRNG. The n-th profile text depends only on GENERATOR_VERSION and n, so a corpus of 10k is
 * the first 10k of the corpus of 100k and cached vectors serve every size.
 */

/** Bump when templates, vocabulary or drawing change: cached vectors and seeded databases are keyed by it. */
export const GENERATOR_VERSION = "profiles-v1";

/** mulberry32: a small, fast 32-bit PRNG; good enough to spread picks, fully reproducible. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const V = {
  drink: ["green tea", "black coffee", "oat milk lattes", "sparkling water", "espresso", "herbal tea", "matcha", "cold brew", "hot chocolate", "kombucha", "orange juice", "chai", "decaf coffee", "iced tea", "lemonade", "red wine", "craft beer", "smoothies", "flat whites", "mint tea", "ginger ale", "coconut water", "cortados", "rooibos", "yerba mate", "americanos", "cappuccinos", "jasmine tea"],
  situation: ["working late", "travelling for work", "on weekend mornings", "writing code", "in long meetings", "reading", "studying for exams", "hiking", "at the office", "working from home", "after the gym", "on flights", "visiting family", "during deadlines", "on rainy days", "in the afternoon slump", "hosting friends", "on road trips", "commuting by train", "brainstorming", "on vacation", "cooking dinner", "before presentations", "journaling", "on night shifts", "gardening", "doing taxes", "at conferences"],
  time: ["in winter", "in summer", "before noon", "after dinner", "on Mondays", "on Fridays", "at weekends", "late at night", "early in the morning", "during the holidays", "when stressed", "when it is cold outside", "at lunch", "on busy days", "on quiet evenings", "in spring", "in autumn", "on long weekends", "on workdays", "after sunset"],
  job: ["software engineer", "nurse", "data scientist", "high school teacher", "product manager", "architect", "accountant", "graphic designer", "paramedic", "civil engineer", "chef", "lawyer", "pharmacist", "journalist", "electrician", "UX researcher", "marketing lead", "veterinarian", "pilot", "social worker", "sales manager", "physiotherapist", "translator", "carpenter", "research biologist", "financial analyst", "game developer", "librarian", "dentist", "urban planner", "musician", "photographer"],
  city: ["Berlin", "Lisbon", "Toronto", "Nairobi", "Osaka", "Austin", "Melbourne", "Buenos Aires", "Oslo", "Seoul", "Dublin", "Mumbai", "Mexico City", "Vancouver", "Prague", "Cape Town", "Singapore", "Helsinki", "Chicago", "Barcelona", "Zurich", "Denver", "Lagos", "Montreal", "Edinburgh", "Taipei", "Copenhagen", "Seattle", "Vienna", "Bogota", "Auckland", "Warsaw"],
  org: ["a small startup", "a large hospital", "a public school", "a consulting firm", "a bank", "a nonprofit", "the city council", "a game studio", "a law firm", "a research lab", "a family business", "a logistics company", "a university", "an airline", "a newspaper", "a design agency", "a climate startup", "a retail chain", "an insurance company", "a film studio"],
  companion: ["a partner and two kids", "three roommates", "an elderly parent", "a golden retriever", "a spouse", "a twin brother", "two cats", "a newborn daughter", "a teenage son", "nobody else", "a long-term partner", "a sister", "grandparents", "a rescue dog", "a partner who works nights", "a parrot"],
  pet: ["golden retriever", "tabby cat", "border collie", "parrot", "rabbit", "bearded dragon", "labrador", "siamese cat", "corgi", "goldfish", "hamster", "greyhound", "tortoise", "beagle", "maine coon", "husky", "cockatiel", "dachshund", "ferret", "pug"],
  petName: ["Biscuit", "Luna", "Max", "Pepper", "Milo", "Nala", "Oscar", "Ziggy", "Daisy", "Rocky", "Mochi", "Hazel", "Tofu", "Bruno", "Cleo", "Pickles", "Juniper", "Ollie", "Sage", "Waffles"],
  petFact: ["needs a walk every morning", "is on a special diet", "is afraid of thunder", "just turned ten", "was adopted last year", "gets anxious in the car", "has a vet visit next week", "loves the beach", "sleeps on the sofa", "is being trained to heel"],
  allergen: ["peanuts", "shellfish", "pollen", "cat dander", "penicillin", "gluten", "lactose", "tree nuts", "dust mites", "latex", "soy", "eggs", "bee stings", "sesame", "strawberries", "mold"],
  allergyFact: ["carries an epipen", "reads every food label", "avoids certain restaurants", "gets hay fever every spring", "mentions it when ordering", "takes antihistamines daily", "was diagnosed as a child", "asks hosts in advance"],
  hobby: ["rock climbing", "watercolor painting", "baking sourdough", "birdwatching", "playing chess", "woodworking", "running trail races", "knitting", "salsa dancing", "playing the cello", "pottery", "photography", "gardening", "sailing", "cycling", "board games", "surfing", "yoga", "writing poetry", "fishing", "skateboarding", "bouldering", "scuba diving", "astronomy", "calligraphy", "home brewing", "origami", "kayaking"],
  when: ["on Saturday mornings", "every Sunday", "after work", "on holidays", "twice a week", "whenever it is sunny", "with friends", "alone to relax", "with the kids", "at a local club", "during lunch breaks", "on long weekends", "every evening", "once a month"],
  language: ["Spanish", "Japanese", "German", "French", "Portuguese", "Mandarin", "Korean", "Italian", "Arabic", "Hindi", "Dutch", "Swedish", "Polish", "Turkish", "Greek", "Swahili", "Russian", "Vietnamese", "Hebrew", "Thai"],
  tool: ["VS Code", "Notion", "Excel", "Figma", "Vim", "Jira", "Google Docs", "Obsidian", "Slack", "Trello", "Photoshop", "a paper notebook", "Emacs", "Linear", "PowerPoint", "Airtable", "Zotero", "Todoist", "a whiteboard", "Blender"],
  task: ["planning sprints", "taking notes", "tracking expenses", "writing reports", "designing mockups", "managing tasks", "drafting emails", "editing photos", "keeping a journal", "organizing research", "prototyping ideas", "preparing slides", "reviewing code", "scheduling shifts", "tracking workouts", "learning vocabulary"],
  thing: ["small talk", "long emails", "open offices", "loud music", "early meetings", "spicy food", "crowded trains", "vague instructions", "cold weather", "video calls", "phone calls", "surprise parties", "jargon", "pop-up ads", "late replies", "overly formal language", "bullet point summaries", "emojis", "waiting in lines", "reality TV"],
  context: ["at work", "on weekends", "in restaurants", "during travel", "with clients", "in the morning", "at family dinners", "in chat messages", "in documentation", "in code reviews", "on holiday", "at the gym", "in the classroom", "on public transport"],
  place: ["Japan", "Iceland", "Peru", "Morocco", "New Zealand", "Italy", "Vietnam", "Norway", "Mexico", "Kenya", "Portugal", "Canada", "Greece", "Thailand", "Scotland", "Chile", "Croatia", "India", "Egypt", "Patagonia", "the Alps", "the Rocky Mountains", "Bali", "Costa Rica"],
  month: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
  travelWith: ["with a partner", "solo", "with college friends", "with the whole family", "on a tight budget", "by train", "for a wedding", "for a conference", "to go hiking", "for a honeymoon", "with a tour group", "to visit relatives"],
  diet: ["vegetarian", "vegan", "low carb", "pescatarian", "gluten free", "keto", "mediterranean", "low sodium", "high protein", "dairy free", "halal", "kosher", "paleo", "plant based"],
  dietReason: ["for health reasons", "since last year", "for ethical reasons", "on doctor's advice", "to lose weight", "for athletic training", "because of a family habit", "to manage cholesterol", "out of curiosity", "for religious reasons"],
  sport: ["tennis", "football", "basketball", "badminton", "volleyball", "golf", "squash", "table tennis", "ice hockey", "cricket", "rugby", "baseball", "water polo", "handball", "ultimate frisbee", "padel"],
  frequency: ["every Tuesday", "twice a week", "on weekends", "in a local league", "most evenings", "competitively", "just for fun", "with coworkers", "at the university", "since childhood"],
  genre: ["jazz", "classical music", "lo-fi beats", "heavy metal", "podcasts about history", "audiobooks", "hip hop", "indie folk", "techno", "country music", "k-pop", "ambient music", "opera", "reggae", "film soundtracks", "true crime podcasts"],
  activity: ["coding", "running", "cooking", "driving", "cleaning the house", "working out", "studying", "falling asleep", "commuting", "painting", "writing", "doing chores"],
  book: ["science fiction", "historical fiction", "biographies", "mystery novels", "fantasy", "self-help", "poetry", "graphic novels", "popular science", "thrillers", "philosophy", "romance novels", "travel writing", "classic literature"],
  tone: ["short", "detailed", "step by step", "casual", "formal", "friendly", "technical", "bullet point", "honest", "encouraging", "concise", "example driven"],
  topic: ["personal finance", "cooking", "programming", "health", "travel plans", "legal questions", "parenting", "home repairs", "career moves", "fitness", "gardening", "taxes", "investing", "language learning", "mental health", "car maintenance", "history", "machine learning"],
  event: ["marathon", "half marathon", "triathlon", "charity bike ride", "powerlifting meet", "swim race", "trail ultra", "10k run", "climbing competition", "rowing regatta"],
  vehicle: ["an electric car", "a vintage motorbike", "a minivan", "a cargo bike", "a pickup truck", "a hybrid hatchback", "a camper van", "a scooter", "a road bike", "no car at all"],
  field: ["computer science", "nursing", "economics", "mechanical engineering", "art history", "biology", "law", "psychology", "architecture", "mathematics", "music", "chemistry", "political science", "linguistics", "medicine", "philosophy"],
  school: ["a state university", "a community college", "an art school", "a technical institute", "a small liberal arts college", "a university abroad", "night school", "an online program"],
  channel: ["email", "text messages", "phone calls", "video calls", "voice notes", "chat", "in-person meetings", "handwritten letters"],
  purpose: ["work updates", "urgent issues", "scheduling", "family news", "feedback", "billing questions", "support requests", "planning trips"],
  goal: ["save for a house", "run a marathon", "learn to code", "get promoted", "read fifty books this year", "sleep more", "cook at home more often", "pay off student loans", "start a business", "learn to swim", "reduce screen time", "move abroad", "write a novel", "get a pilot license"],
  deadline: ["by the end of the year", "before turning forty", "within six months", "next spring", "this summer", "by retirement", "within two years", "before the baby arrives"],
  weekday: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
  kids: ["a toddler", "two teenagers", "twins in primary school", "a son in college", "three young kids", "a daughter who plays violin", "a baby on the way", "a stepson"],
  health: ["type 1 diabetes", "a bad knee", "migraines", "asthma", "high blood pressure", "back pain", "insomnia", "a recent knee surgery", "celiac disease", "seasonal depression", "a shoulder injury", "low iron"],
  healthFact: ["and avoids high impact sports", "and tracks it with an app", "and sees a specialist monthly", "and prefers gentle exercise", "and asks for low sugar recipes", "and keeps medication nearby", "and is careful with caffeine", "and takes regular breaks"],
} as const;

type Slot = keyof typeof V;

/** Profile facts, third person without subject, as extractors write them. */
const PROFILE_TEMPLATES: readonly string[] = [
  "Prefers {drink} when {situation}, especially {time}",
  "Works as a {job} at {org} in {city}",
  "Lives in {city} with {companion}",
  "Has a {pet} named {petName} that {petFact}",
  "Is allergic to {allergen} and {allergyFact}",
  "Enjoys {hobby} {when}",
  "Speaks {language} and is learning {language} for a trip to {place}",
  "Uses {tool} for {task} {context}",
  "Dislikes {thing} {context}",
  "Is planning a trip to {place} in {month} {travelWith}",
  "Follows a {diet} diet {dietReason}",
  "Plays {sport} {frequency}",
  "Listens to {genre} while {activity}",
  "Reads {book} {time} and likes {book}",
  "Wants {tone} answers about {topic}",
  "Is training for a {event} in {month}",
  "Drives {vehicle} and commutes {situation}",
  "Studied {field} at {school} and now works as a {job}",
  "Prefers {channel} over {channel} for {purpose}",
  "Wants to {goal} {deadline}",
  "Works from home on {weekday}s and from the office in {city} otherwise",
  "Has {kids} and plans around school {time}",
  "Has {health} {healthFact}",
  "Is interested in {topic} and {topic}, asks about them {time}",
  "Recently took up {hobby} after moving to {city}",
  "Birthday is in {month}; likes {drink} and {hobby}",
];

/** Questions an agent asks about a user; several words overlap the facts so the text arm matches too. */
const QUERY_TEMPLATES: readonly string[] = [
  "what does the user like to drink when {situation}",
  "where does the user work as a {job}",
  "who does the user live with in {city}",
  "does the user have a {pet}",
  "food allergies like {allergen}",
  "hobbies such as {hobby}",
  "which languages does the user speak, {language}?",
  "what tools does the user use for {task}",
  "things the user dislikes {context}",
  "upcoming travel plans to {place}",
  "dietary restrictions, {diet}",
  "does the user play {sport}",
  "music the user listens to while {activity}",
  "favorite {book} books",
  "how should answers about {topic} be written",
  "is the user training for a {event}",
  "how does the user commute, {vehicle}",
  "education in {field}",
  "preferred way to contact the user for {purpose}",
  "personal goals like to {goal}",
  "does the user work remotely on {weekday}",
  "family situation and {kids}",
  "health conditions such as {health}",
  "what is the user curious about in {topic}",
  "recommend a gift for someone into {hobby}",
  "plan a weekend in {city} for this user",
];

/**
 * Where a fact came from or how it was phrased; multiplies the template space (about 86k bare facts)
 * so that 100k+ distinct texts exist while every template keeps its share.
 */
const QUALIFIERS: readonly string[] = [
  "", "", "", "", "", "",
  " (mentioned in {month})",
  ", as of {month}",
  ", which came up {time}",
  ", according to a conversation over {channel}",
  ", and asked the assistant to remember it",
  ", said during onboarding",
  ", confirmed again on a {weekday}",
  ", though this may have changed since {month}",
];

function fill(template: string, random: () => number): string {
  return template.replace(/\{(\w+)\}/g, (_, slot: string) => pick(random, V[slot as Slot]));
}

/** The first `count` profile texts, all distinct, deterministic. */
export function profileTexts(count: number): string[] {
  const random = prng(0x5eed_0001);
  const seen = new Set<string>();
  const texts: string[] = [];
  while (texts.length < count) {
    const fact = fill(pick(random, PROFILE_TEMPLATES), random);
    // A repeated fact gets a qualifier; only a qualified fact that also repeats is drawn again.
    for (let attempt = 0; attempt < 8; attempt++) {
      const text = attempt === 0 ? fact : fact + fill(pick(random, QUALIFIERS), random);
      if (seen.has(text)) continue;
      seen.add(text);
      texts.push(text);
      break;
    }
  }
  return texts;
}

/**
 * Query texts, distinct from each other and from every text in `exclude` (which it extends), so a
 * query embedded in one benchmark row never hits the embedder's cache in another.
 */
export function queryTexts(count: number, seed: number, exclude: Set<string>): string[] {
  const random = prng(seed);
  const texts: string[] = [];
  while (texts.length < count) {
    const question = fill(pick(random, QUERY_TEMPLATES), random);
    // The question space is finite (about 15k): a repeat gets a short time qualifier.
    for (let attempt = 0; attempt < 8; attempt++) {
      const text = attempt === 0 ? question : `${question} ${pick(random, V.time)}`;
      if (exclude.has(text)) continue;
      exclude.add(text);
      texts.push(text);
      break;
    }
  }
  return texts;
}
