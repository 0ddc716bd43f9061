import { LEARNING_TUNING_REQUESTS } from './src/testdata/learning-tuning-requests.js';
import { splitCases } from './src/testdata/split.js';
for (const [q,e] of splitCases(LEARNING_TUNING_REQUESTS).tuning) console.log(e, '|', q);
