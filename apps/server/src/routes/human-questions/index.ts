import cancel from "./cancel.ts";
import get from "./get.ts";
import list from "./list.ts";
import notApplicable from "./not-applicable.ts";
import resolve from "./resolve.ts";
import updateAnswer from "./update-answer.ts";

export const humanQuestionsRoutes = { list, get, resolve, updateAnswer, notApplicable, cancel };
