/** The bus commands' one shape: each is declared from the decider command it becomes, so its fields are written once. */
import { Command } from '@nestjs/cqrs';

/** A use case sent on the CommandBus: what its caller knows of the decider's command; the handler adds the time and the new ids. */
export abstract class UseCase<Input, Result> extends Command<Result> {
  constructor(readonly input: Input) {
    super();
  }
}

/** The decider command `C` without its `type` and what the handler adds (`now` and the keys listed). */
export type UseCaseInput<C, Added extends keyof C = never> = Omit<C, 'type' | 'now' | Added>;
