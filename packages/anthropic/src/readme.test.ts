import { describeReadme } from '@toolplane/readme-check';

describeReadme(import.meta.url);
